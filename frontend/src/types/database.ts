// Generated from the database schema by pkg/rest/tsgen: do not edit.
// Regenerate with: go tool task web:types

export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
  public: {
    Tables: {
      invite_codes: {
        Row: {
          id: number
          code: string
          max_uses: number
          uses: number
          expires_at: string | null
          revoked_at: string | null
          note: string
          created_at: string
        }
        Insert: {
          id?: number
          code: string
          max_uses?: number
          uses?: number
          expires_at?: string | null
          revoked_at?: string | null
          note?: string
          created_at?: string
        }
        Update: {
          id?: number
          code?: string
          max_uses?: number
          uses?: number
          expires_at?: string | null
          revoked_at?: string | null
          note?: string
          created_at?: string
        }
        Relationships: []
      }
      invite_redemptions: {
        Row: {
          invite_id: number
          user_id: string
          redeemed_at: string
        }
        Insert: {
          invite_id: number
          user_id: string
          redeemed_at?: string
        }
        Update: {
          invite_id?: number
          user_id?: string
          redeemed_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "invite_redemptions_invite_id_fkey"
            columns: ["invite_id"]
            isOneToOne: false
            referencedRelation: "invite_codes"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "invite_redemptions_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      labelbase_schema_migrations: {
        Row: {
          version: number
          dirty: boolean
        }
        Insert: {
          version: number
          dirty: boolean
        }
        Update: {
          version?: number
          dirty?: boolean
        }
        Relationships: []
      }
      labels: {
        Row: {
          id: number
          label_name: string
          label_url: string
          tags: string[]
          created_at: string
          updated_at: string
          crawled_at: string | null
        }
        Insert: {
          id?: number
          label_name: string
          label_url: string
          tags?: string[]
          created_at?: string
          updated_at?: string
          crawled_at?: string | null
        }
        Update: {
          id?: number
          label_name?: string
          label_url?: string
          tags?: string[]
          created_at?: string
          updated_at?: string
          crawled_at?: string | null
        }
        Relationships: []
      }
      labels_to_add: {
        Row: {
          id: number
          label_url: string
          is_processed: boolean
          is_valid: boolean
          user_id: string | null
          created_at: string
          processed_at: string | null
          attempts: number
          last_attempt_at: string | null
          error: string | null
          label_id: number | null
        }
        Insert: {
          id?: number
          label_url: string
          is_processed?: boolean
          is_valid?: boolean
          user_id?: string | null
          created_at?: string
          processed_at?: string | null
          attempts?: number
          last_attempt_at?: string | null
          error?: string | null
          label_id?: number | null
        }
        Update: {
          id?: number
          label_url?: string
          is_processed?: boolean
          is_valid?: boolean
          user_id?: string | null
          created_at?: string
          processed_at?: string | null
          attempts?: number
          last_attempt_at?: string | null
          error?: string | null
          label_id?: number | null
        }
        Relationships: [
          {
            foreignKeyName: "labels_to_add_label_id_fkey"
            columns: ["label_id"]
            isOneToOne: false
            referencedRelation: "labels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "labels_to_add_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      releases: {
        Row: {
          id: number
          label_id: number
          title: string
          artist: string
          release_url: string
          release_date: string | null
          image_url: string | null
          genres: string[]
          rich: boolean
          random_key: number
          created_at: string
          updated_at: string
        }
        Insert: {
          id?: number
          label_id: number
          title: string
          artist?: string
          release_url: string
          release_date?: string | null
          image_url?: string | null
          genres?: string[]
          rich?: boolean
          random_key?: number
          created_at?: string
          updated_at?: string
        }
        Update: {
          id?: number
          label_id?: number
          title?: string
          artist?: string
          release_url?: string
          release_date?: string | null
          image_url?: string | null
          genres?: string[]
          rich?: boolean
          random_key?: number
          created_at?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "releases_label_id_fkey"
            columns: ["label_id"]
            isOneToOne: false
            referencedRelation: "labels"
            referencedColumns: ["id"]
          },
        ]
      }
      user_follow_labels: {
        Row: {
          id: number
          user_id: string
          label_id: number
          created_at: string
        }
        Insert: {
          id?: number
          user_id?: string
          label_id: number
          created_at?: string
        }
        Update: {
          id?: number
          user_id?: string
          label_id?: number
          created_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "user_follow_labels_label_id_fkey"
            columns: ["label_id"]
            isOneToOne: false
            referencedRelation: "labels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "user_follow_labels_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      user_listened_releases: {
        Row: {
          id: number
          user_id: string
          release_id: number
          created_at: string
        }
        Insert: {
          id?: number
          user_id?: string
          release_id: number
          created_at?: string
        }
        Update: {
          id?: number
          user_id?: string
          release_id?: number
          created_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "user_listened_releases_release_id_fkey"
            columns: ["release_id"]
            isOneToOne: false
            referencedRelation: "releases"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "user_listened_releases_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
    }
    Views: { [_ in never]: never }
    Functions: {
      admin_audit_log:
        | { Args: { p_limit?: number }; Returns: { id: number; at: string; actor: string; action: string; target: string; detail: Json }[] }
      admin_crawl_runs:
        | { Args: { p_limit?: number }; Returns: { id: number; started_at: string; finished_at: string; status: string; stop_reason: string; labels_checked: number; labels_valid: number; labels_invalid: number; labels_retried: number; releases_added: number; releases_updated: number; network_failures: number; parse_failures: number; error: string }[] }
      admin_crawl_status:
        | { Args: Record<PropertyKey, never>; Returns: Json }
      admin_create_invite:
        | { Args: { p_max_uses?: number; p_expires_in_hours?: number; p_note?: string }; Returns: { id: number; code: string; max_uses: number; expires_at: string; note: string }[] }
      admin_invites:
        | { Args: Record<PropertyKey, never>; Returns: { id: number; code: string; max_uses: number; uses: number; expires_at: string; revoked_at: string; note: string; created_at: string; status: string; used_by: string[] }[] }
      admin_label_failures:
        | { Args: Record<PropertyKey, never>; Returns: { label_id: number; label_name: string; url: string; reason: string; first_seen_at: string; last_seen_at: string }[] }
      admin_labels:
        | { Args: { p_search?: string; p_limit?: number }; Returns: { id: number; label_name: string; label_url: string; tags: string[]; hidden: boolean; crawled_at: string; parse_failure: string; followers: number }[] }
      admin_members:
        | { Args: { p_search?: string; p_limit?: number }; Returns: { id: string; email: string; joined_at: string; invite_code: string; invite_note: string; follows: number; banned: boolean; banned_until: string; is_admin: boolean; last_sign_in_at: string }[] }
      admin_reject_submission:
        | { Args: { p_id: number; p_reason: string }; Returns: undefined }
      admin_request_crawl:
        | { Args: { p_label_id?: number }; Returns: number }
      admin_retry_submission:
        | { Args: { p_id: number }; Returns: undefined }
      admin_revoke_invite:
        | { Args: { p_id: number }; Returns: undefined }
      admin_set_admin:
        | { Args: { p_user_id: string; p_admin: boolean }; Returns: undefined }
      admin_set_banned:
        | { Args: { p_user_id: string; p_banned: boolean }; Returns: undefined }
      admin_set_label_hidden:
        | { Args: { p_label_id: number; p_hidden: boolean }; Returns: undefined }
      admin_storage_use:
        | { Args: Record<PropertyKey, never>; Returns: { bucket_id: string; bucket_name: string; public: boolean; objects: number; bytes: number }[] }
      admin_submissions:
        | { Args: { p_status?: string }; Returns: { id: number; label_url: string; status: string; reason: string; submitter_id: string; submitter_email: string; submitted_at: string; processed_at: string; attempts: number; last_attempt_at: string; label_id: number }[] }
      count_filtered_labels_by_listen_status:
        | { Args: { user_id_param: string; filter_type: string; search_term?: string }; Returns: number }
      count_followed_labels:
        | { Args: { user_id_param: string; letter_filter?: string; tag_filter?: string; search_term?: string }; Returns: number }
      count_unfollowed_labels:
        | { Args: { user_id_param: string; letter_filter?: string; tag_filter?: string; search_term?: string }; Returns: number }
      get_all_filtered_labels_by_listen_status:
        | { Args: { user_id_param: string; filter_type: string }; Returns: { id: number; label_name: string; label_url: string; tags: string[]; is_fully_checked: boolean }[] }
      get_explore_genres:
        | { Args: { time_range_days?: number }; Returns: { genre: string; releases: number }[] }
      get_filtered_labels_by_listen_status:
        | { Args: { user_id_param: string; filter_type: string; page_number: number; items_per_page: number; search_term?: string }; Returns: { id: number; label_name: string; label_url: string; tags: string[]; is_fully_checked: boolean }[] }
      get_followed_labels:
        | { Args: { user_id_param: string; page_number: number; items_per_page: number; letter_filter?: string; tag_filter?: string; search_term?: string }; Returns: { id: number; label_name: string; label_url: string; tags: string[] }[] }
      get_label_tags:
        | { Args: { followed: boolean }; Returns: { tag: string; labels: number }[] }
      get_latest_releases:
        | { Args: { user_id: string; label_ids?: number[]; page_size?: number; page?: number }; Returns: { id: number; label_id: number; title: string; artist: string; release_url: string; release_date: string; image_url: string; genres: string[]; rich: boolean; listened: boolean; labels: Json }[] }
      get_latest_releases_per_label:
        | { Args: { p_label_ids: number[]; p_limit: number }; Returns: { id: number; label_id: number; title: string; artist: string; release_url: string; release_date: string; image_url: string; genres: string[]; rich: boolean }[] }
      get_random_releases:
        | { Args: { user_id: string; label_ids?: number[]; exclude_ids?: number[]; num_releases?: number; genre_filters?: string[]; time_range_days?: number }; Returns: { id: number; label_id: number; title: string; artist: string; release_url: string; release_date: string; image_url: string; genres: string[]; rich: boolean; listened: boolean; labels: Json }[] }
      get_unfollowed_labels:
        | { Args: { user_id_param: string; page_number: number; items_per_page: number; letter_filter?: string; tag_filter?: string; search_term?: string }; Returns: { id: number; label_name: string; label_url: string; tags: string[] }[] }
      is_admin:
        | { Args: Record<PropertyKey, never>; Returns: boolean }
      validate_invite_code:
        | { Args: { code_param: string }; Returns: Json }
    }
    Enums: { [_ in never]: never }
    CompositeTypes: { [_ in never]: never }
  }
}
